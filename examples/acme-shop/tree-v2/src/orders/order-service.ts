import { computeOrderTotal } from "./pricing";
import { reserveStock } from "../inventory/stock";
import { PaymentClient } from "../payments/payment-client";
import { query } from "../db/connection";
import type { Order } from "./types";

export class OrderService {
  constructor(private readonly payments: PaymentClient) {}

  async placeOrder(order: Order): Promise<string> {
    await reserveStock(order.lines);
    const total = computeOrderTotal(order);
    const charge = await this.payments.charge(order.customerId, total);
    await query("insert into orders (id, customer_id, total_cents, charge_id) values ($1, $2, $3, $4)", [
      order.id, order.customerId, total, charge.id,
    ]);
    return charge.id;
  }

  async cancelOrder(orderId: string): Promise<void> {
    await query("update orders set status = 'cancelled' where id = $1", [orderId]);
  }
}

export async function markOrderPaid(orderId: string): Promise<void> {
  await query("update orders set status = 'paid' where id = $1", [orderId]);
}
