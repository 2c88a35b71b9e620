import { Pool } from "pg";

const pool = new Pool({ connectionString: process.env.DATABASE_URL });

export async function query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await pool.query(sql, params);
  return result.rows as T[];
}

export async function withTransaction<T>(work: () => Promise<T>): Promise<T> {
  await pool.query("begin");
  try {
    const value = await work();
    await pool.query("commit");
    return value;
  } catch (error) {
    await pool.query("rollback");
    throw error;
  }
}
