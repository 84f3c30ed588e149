-- Terrain on the server: whether a tile is water, decided by the same pure function the client
-- draws with (components/terrain.ts). The client builds its elevation field with simplex-noise 4
-- (createNoise2D) from a mulberry32 stream seeded with WORLD_SEED; this file is a line-by-line
-- port of that 2D noise in double precision, with the permutation table that seed gives. Every
-- operation is an IEEE 754 double operation in the same order as the JavaScript, so both sides
-- compute the same bits (test/server/terrain-sql.test.ts compares elevation and water on
-- thousands of tiles; a changed seed or noise library fails it).

-- simplex-noise 4's noise2D for the elevation field of WORLD_SEED (20240601).
create or replace function game_private.elevation_noise(x double precision, y double precision)
returns double precision
language plpgsql immutable strict parallel safe set search_path = '' as $$
declare
  -- buildPermutationTable(createRandom(20240601)), first half; the second half repeats it.
  perm constant integer[] := '{90,8,176,56,112,65,212,24,253,229,180,93,36,186,122,252,174,141,88,128,191,246,74,121,236,243,119,91,188,132,154,203,195,39,101,46,140,157,225,115,194,155,14,64,231,208,59,62,51,163,168,224,67,134,244,164,69,181,105,31,230,35,111,58,144,202,29,190,106,241,87,152,223,16,107,172,19,30,145,116,84,171,11,238,201,98,173,210,22,215,54,4,42,232,198,217,72,109,207,20,189,50,23,247,216,99,61,114,102,70,94,137,104,213,185,27,143,197,1,242,218,0,113,204,49,196,13,89,117,7,34,15,77,120,234,83,18,6,53,166,233,211,78,124,200,150,32,127,44,130,193,147,156,184,151,126,136,86,110,250,38,2,248,219,81,178,138,162,26,179,237,206,108,239,100,227,75,28,175,159,10,149,142,249,82,25,182,220,96,153,68,43,92,170,95,183,255,133,85,187,226,60,167,221,73,97,103,251,47,235,165,63,160,71,131,17,161,79,48,45,5,148,254,228,240,129,3,66,76,169,125,214,146,21,245,199,209,135,52,118,177,123,40,192,222,57,33,9,205,55,41,37,139,12,158,80}';
  grad_x constant double precision[] := '{1,-1,1,-1,1,-1,1,-1,0,0,0,0}';
  grad_y constant double precision[] := '{1,1,-1,-1,0,0,0,0,1,-1,1,-1}';
  f2 constant double precision := 0.5::float8 * (sqrt(3::float8) - 1::float8);
  g2 constant double precision := (3::float8 - sqrt(3::float8)) / 6::float8;
  s double precision; t double precision;
  i integer; j integer; i1 integer; j1 integer; ii integer; jj integer; g integer;
  x0 double precision; y0 double precision; x1 double precision; y1 double precision;
  x2 double precision; y2 double precision;
  t0 double precision; t1 double precision; t2 double precision;
  n0 double precision := 0; n1 double precision := 0; n2 double precision := 0;
begin
  s := (x + y) * f2;
  i := floor(x + s)::integer;
  j := floor(y + s)::integer;
  t := (i + j) * g2;
  x0 := x - (i - t);
  y0 := y - (j - t);
  if x0 > y0 then i1 := 1; j1 := 0; else i1 := 0; j1 := 1; end if;
  x1 := x0 - i1 + g2;
  y1 := y0 - j1 + g2;
  x2 := x0 - 1::float8 + 2::float8 * g2;
  y2 := y0 - 1::float8 + 2::float8 * g2;
  ii := i & 255;
  jj := j & 255;
  t0 := 0.5::float8 - x0 * x0 - y0 * y0;
  if t0 >= 0 then
    g := perm[((ii + perm[jj + 1]) & 255) + 1] % 12 + 1;
    t0 := t0 * t0;
    n0 := t0 * t0 * (grad_x[g] * x0 + grad_y[g] * y0);
  end if;
  t1 := 0.5::float8 - x1 * x1 - y1 * y1;
  if t1 >= 0 then
    g := perm[((ii + i1 + perm[((jj + j1) & 255) + 1]) & 255) + 1] % 12 + 1;
    t1 := t1 * t1;
    n1 := t1 * t1 * (grad_x[g] * x1 + grad_y[g] * y1);
  end if;
  t2 := 0.5::float8 - x2 * x2 - y2 * y2;
  if t2 >= 0 then
    g := perm[((ii + 1 + perm[((jj + 1) & 255) + 1]) & 255) + 1] % 12 + 1;
    t2 := t2 * t2;
    n2 := t2 * t2 * (grad_x[g] * x2 + grad_y[g] * y2);
  end if;
  return 70::float8 * (n0 + n1 + n2);
end $$;

-- The elevation of a tile: two octaves, 160 and 40 tiles per feature (terrain.ts field()).
create or replace function game_private.elevation_at(tile_x integer, tile_y integer)
returns double precision
language sql immutable strict parallel safe set search_path = '' as $$
  select game_private.elevation_noise(tile_x::float8 / 160::float8, tile_y::float8 / 160::float8) * 0.75::float8
       + game_private.elevation_noise(tile_x::float8 / 40::float8, tile_y::float8 / 40::float8) * 0.25::float8
$$;

-- Whether a tile is water (ocean or tropical ocean): outside spawn, elevation below -0.38
-- (WATER_ELEVATION in components/terrain.ts).
create or replace function game_private.is_water(tile_x integer, tile_y integer) returns boolean
language sql immutable strict parallel safe set search_path = '' as $$
  select not (abs(tile_x) <= 2 and abs(tile_y) <= 2)
    and game_private.elevation_at(tile_x, tile_y) < -0.38::float8
$$;

revoke all on function game_private.elevation_noise(double precision, double precision),
  game_private.elevation_at(integer, integer), game_private.is_water(integer, integer) from public;
