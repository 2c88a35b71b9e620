-- 002: store refresh tokens hashed; add revocation (release 3.0)
alter table refresh_tokens add column token_hash text;
update refresh_tokens set token_hash = encode(sha256(token::bytea), 'hex');
alter table refresh_tokens alter column token_hash set not null;
alter table refresh_tokens add column revoked boolean not null default false;
create unique index refresh_tokens_token_hash on refresh_tokens (token_hash);
