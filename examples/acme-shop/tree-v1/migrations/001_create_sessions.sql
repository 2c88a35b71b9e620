-- 001: sessions and refresh tokens
create table refresh_tokens (
  id bigserial primary key,
  user_id text not null,
  token text not null unique,
  expires_at timestamptz not null
);

create table sessions (
  id bigserial primary key,
  user_id text not null,
  access_token text not null,
  revoked boolean not null default false
);
