// Applies migrations/*.sql in name order, recording each in schema_migrations.
const { readdirSync, readFileSync } = require("node:fs");
const { Client } = require("pg");

async function main() {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query("create table if not exists schema_migrations (name text primary key)");
  for (const name of readdirSync("migrations").sort()) {
    const done = await client.query("select 1 from schema_migrations where name = $1", [name]);
    if (done.rowCount) continue;
    await client.query(readFileSync(`migrations/${name}`, "utf8"));
    await client.query("insert into schema_migrations (name) values ($1)", [name]);
  }
  await client.end();
}

main();
