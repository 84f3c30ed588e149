-- Bounds on what honest play keeps adding: rotated refresh tokens (embedded server only) and
-- voice clips.

-- ---------------------------------------------------------------------------------------------
-- Refresh tokens. The embedded server answers a token reused within 10 s with its session's
-- active token and deletes rotated tokens after a day and sessions idle for 30 days
-- (server/auth/users.ts, server/auth/cleanup.ts). These indexes keep both cheap. Only where this
-- server owns auth.refresh_tokens: on hosted Supabase the auth server owns it, and this is a no-op.
do $$
begin
  if to_regclass('auth.refresh_tokens') is not null
     and (select c.relowner from pg_class c where c.oid = 'auth.refresh_tokens'::regclass) = current_user::regrole
     and exists (select 1 from pg_attribute a where a.attrelid = 'auth.refresh_tokens'::regclass and a.attname = 'revoked_at' and not a.attisdropped) then
    create index if not exists refresh_tokens_active_idx on auth.refresh_tokens (session_id, created_at) where revoked_at is null;
    create index if not exists refresh_tokens_revoked_at_idx on auth.refresh_tokens (revoked_at) where revoked_at is not null;
    create index if not exists refresh_tokens_idle_idx on auth.refresh_tokens (created_at) where revoked_at is null;
  end if;
end $$;

-- ---------------------------------------------------------------------------------------------
-- Voice clips are heard live only: a client plays a clip from its INSERT event (which carries the
-- whole row) and never reads stored clips. A clip is deleted 2 minutes after it was sent, far
-- beyond any delivery delay: every statement that inserts clips first deletes up to 10 clips older
-- than that, oldest first, skipping rows another transaction holds. With one clip per insert (the
-- voice rate allows one every 5 s per wallet), old clips leave faster than new ones come, and a
-- wallet's stored clips stay within its burst plus 2 minutes of its rate (27 clips). No scheduler
-- is needed, so it works the same on hosted Supabase.
create index if not exists game_voice_messages_created_at_idx on public.game_voice_messages (created_at);

create or replace function game_private.prune_voice_clips() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  delete from public.game_voice_messages
  where id in (select v.id from public.game_voice_messages v
               where v.created_at < now() - interval '2 minutes'
               order by v.created_at
               limit 10
               for update skip locked);
  return null;
end $$;

revoke all on function game_private.prune_voice_clips() from public;

create trigger game_voice_messages_prune after insert on public.game_voice_messages
  for each statement execute function game_private.prune_voice_clips();
