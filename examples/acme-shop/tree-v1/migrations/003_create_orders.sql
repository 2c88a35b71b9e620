-- 003: orders and stock
create table orders (
  id text primary key,
  customer_id text not null,
  total_cents integer not null,
  charge_id text,
  status text not null default 'pending'
);

create table stock (
  sku text primary key,
  available integer not null,
  reserved integer not null default 0
);
