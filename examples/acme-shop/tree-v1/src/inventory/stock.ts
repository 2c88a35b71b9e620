import { query, withTransaction } from "../db/connection";
import type { OrderLine } from "../orders/types";

export class OutOfStockError extends Error {
  constructor(readonly sku: string) {
    super(`out of stock: ${sku}`);
  }
}

export async function reserveStock(lines: OrderLine[]): Promise<void> {
  await withTransaction(async () => {
    for (const line of lines) {
      const rows = await query("update stock set reserved = reserved + $1 where sku = $2 and available - reserved >= $1 returning sku", [
        line.quantity, line.sku,
      ]);
      if (rows.length === 0) throw new OutOfStockError(line.sku);
    }
  });
}

export async function releaseStock(lines: OrderLine[]): Promise<void> {
  for (const line of lines) {
    await query("update stock set reserved = reserved - $1 where sku = $2", [line.quantity, line.sku]);
  }
}

export async function reindexProducts(dryRun: boolean): Promise<number> {
  const rows = await query("select sku from products");
  if (!dryRun) await query("refresh materialized view product_search");
  return rows.length;
}
