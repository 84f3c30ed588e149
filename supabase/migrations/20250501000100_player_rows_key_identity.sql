-- A presence row changes every 5 s for every player, and each change goes to every player near
-- it. Nothing reads an update's old row, and a departed player is known by its key alone, so
-- the old row of an update or delete carries only player_id (the default replica identity):
-- a third less to send and to decode per heartbeat.
alter table public.game_players replica identity default;
