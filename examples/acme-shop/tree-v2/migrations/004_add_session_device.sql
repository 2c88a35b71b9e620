-- 004: remember which device a session belongs to (release 3.5)
alter table sessions add column device_id text;
alter table sessions add column created_at timestamptz not null default now();
create index sessions_user_device on sessions (user_id, device_id);
