import type { Order } from "./types";

const DISCOUNTS: Record<string, number> = { WELCOME10: 0.1, VIP20: 0.2 };

/** Order total in cents after the discount code, rounded half up. */
export function calculateTotal(order: Order): number {
  const subtotal = order.lines.reduce((sum, line) => sum + line.quantity * line.unitPriceCents, 0);
  return Math.round(subtotal * (1 - discountRate(order.discountCode)));
}

export function discountRate(code: string | undefined): number {
  return code === undefined ? 0 : DISCOUNTS[code] ?? 0;
}
