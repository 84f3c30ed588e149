-- Broadcast from the database (docs/protocols.md §3): realtime.send() stores a broadcast in
-- realtime.messages (realtime.send_binary() one of bytes), and Realtime delivers every such row to
-- the members of its topic (private rows only to members the read policies allow);
-- realtime.broadcast_changes() is the row-trigger helper that sends a row change in hosted's
-- shape. A hosted project already has these functions (owned by Realtime, which this migration
-- must not replace), so each is created only if missing, with hosted's signature and behaviour.

do $$
begin
  if to_regprocedure('realtime.send(jsonb, text, text, boolean)') is null then
    -- The payload gets an `id` (the message's id) unless it has one. A failure (a refused insert
    -- policy, a bad topic) is a warning, never an error of the caller's transaction, as on hosted.
    create function realtime.send(payload jsonb, event text, topic text, private boolean default true)
    returns void
    language plpgsql
    as $fn$
    declare
      generated_id uuid;
      final_payload jsonb;
    begin
      begin
        generated_id := gen_random_uuid();
        if payload ? 'id' then
          final_payload := payload;
        else
          final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
        end if;
        perform set_config('realtime.topic', topic, true);
        insert into realtime.messages (id, payload, event, topic, private, extension)
        values (generated_id, final_payload, event, topic, private, 'broadcast');
      exception
        when others then
          raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
      end;
    end
    $fn$;
  end if;

  if to_regprocedure('realtime.send_binary(bytea, text, text, boolean)') is null then
    -- The same for a binary payload, delivered as a binary broadcast.
    create function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
    returns void
    language plpgsql
    as $fn$
    declare
      generated_id uuid;
    begin
      begin
        generated_id := gen_random_uuid();
        perform set_config('realtime.topic', topic, true);
        insert into realtime.messages (id, binary_payload, event, topic, private, extension)
        values (generated_id, payload, event, topic, private, 'broadcast');
      exception
        when others then
          raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
      end;
    end
    $fn$;
  end if;

  if to_regprocedure('realtime.broadcast_changes(text, text, text, text, text, record, record, text)') is null then
    -- Call it from a FOR EACH ROW trigger: the payload is {old_record, record, operation, table,
    -- schema} (and the id realtime.send adds), sent privately on topic_name as event_name.
    create function realtime.broadcast_changes(
      topic_name text, event_name text, operation text, table_name text, table_schema text,
      new record, old record, level text default 'ROW')
    returns void
    language plpgsql
    as $fn$
    declare
      row_data jsonb := '{}'::jsonb;
    begin
      if level = 'STATEMENT' then
        raise exception 'function can only be triggered for each row, not for each statement';
      end if;
      if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
        row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                       'table', table_name, 'schema', table_schema);
        perform realtime.send(row_data, event_name, topic_name);
      else
        raise exception 'Unexpected operation type: %', operation;
      end if;
    exception
      when others then
        raise exception 'Failed to process the row: %', sqlerrm;
    end
    $fn$;
  end if;
end $$;
