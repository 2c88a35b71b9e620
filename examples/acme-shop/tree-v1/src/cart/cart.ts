import type { OrderLine } from "../orders/types";

export class Cart {
  private readonly lines = new Map<string, OrderLine>();

  addItem(sku: string, unitPriceCents: number, quantity = 1): void {
    const line = this.lines.get(sku);
    if (line) {
      line.quantity += quantity;
    } else {
      this.lines.set(sku, { sku, quantity, unitPriceCents });
    }
  }

  removeItem(sku: string): boolean {
    return this.lines.delete(sku);
  }

  toLines(): OrderLine[] {
    return [...this.lines.values()];
  }
}
