-- Every player write has a rate (docs/rules.md, "Rates"). Blocks, chat, voice, claims and reports
-- were rated already; this adds a bucket, or a token from an existing one, for every other table
-- a signed-in player may write and for the operators' functions, so nothing a wallet writes can
-- be repeated faster than its bound, and no row change one wallet makes reaches the players who
-- follow that table faster than the sum of these bounds (well under the 100 broadcasts a second
-- Realtime allows one sender; docs/rules.md says how the sum is kept).
--
--   presence heartbeats (game_players insert, update, delete): a burst of 10, then 6 a second.
--     The game sends at most about 5.7 a second (every 250 ms in combat, at most one more a
--     second when the player stops, one every 5 s, one per region entered: at most one every
--     2.3 s at walking speed), plus one for leaving and one for joining again.
--   hits (game_combat_logs insert): 6, then 4 a second. A swing lasts 300 ms, so the game lands
--     at most 3.4 hits a second, on different victims (one hit per victim per 1000 ms).
--   stats (game_player_stats insert, update, delete): 6, then 4 a second, one upsert per hit.
--   chat and voice: deleting a message or clip takes a token from the bucket that sent it.
--   claims: abandoning a claim and removing a trust take a token from 'claim changes'.
--   mutes (game_mutes insert, delete): 20, then 1 a second.
--   operator actions (every row of game_ops_log: bans, unbans, resolved reports, tile history,
--     rollbacks and their undoing): 30, then 1 a second.
--   game_combat_logs: nobody deletes a hit (no policy allowed it); the grant goes too, so a
--     delete is refused as a delete (403) instead of deleting no row.
--
-- Only rows a player's own statement writes take tokens. Rows the server writes or deletes on
-- its behalf in a trigger (old voice clips pruned, a claim's trusts removed with it, a lapsed
-- claim given way, a banned wallet's presence removed by the operator's ban) are part of the
-- request that caused them and bounded by its rate.

-- Takes a token (bucket, burst, per second) for a row the signed-in player's statement writes
-- itself (trigger depth 1); a row written by another trigger is part of the write that fired it.
-- As an AFTER row trigger it counts what was written: an upsert (insert ... on conflict do
-- update) fires BEFORE triggers for both halves but writes, and takes, one row.
create or replace function game_private.limit_direct_rate() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if pg_trigger_depth() = 1 then
    perform game_private.take_token(tg_argv[0], tg_argv[1]::double precision, tg_argv[2]::double precision);
  end if;
  return coalesce(new, old);
end $$;
revoke all on function game_private.limit_direct_rate() from public;

create trigger game_players_rate after insert or update or delete on public.game_players
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('presence heartbeats', '10', '6');

create trigger game_combat_logs_rate before insert on public.game_combat_logs
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('hits', '6', '4');
revoke delete on public.game_combat_logs from anon, authenticated;

create trigger game_player_stats_rate after insert or update or delete on public.game_player_stats
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('stats', '6', '4');

create trigger game_chat_messages_rate_delete before delete on public.game_chat_messages
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('chat messages', '5', '0.5');

create trigger game_voice_messages_rate_delete before delete on public.game_voice_messages
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('voice clips', '3', '0.2');

create trigger game_claims_rate_delete before delete on public.game_claims
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('claim changes', '20', '0.5');
create trigger game_claim_members_rate_delete before delete on public.game_claim_members
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('claim changes', '20', '0.5');

create trigger game_mutes_rate before insert or delete on public.game_mutes
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_direct_rate('mutes', '20', '1');

-- Every operator action writes one row of the operators' log, from inside the function or
-- trigger that does it: the token is taken there, whatever the depth.
create trigger game_ops_log_rate before insert on public.game_ops_log
  for each row when (coalesce(auth.role(), '') = 'authenticated')
  execute function game_private.limit_rate('operator actions', '30', '1');
