import { parse } from "./parse";
import { markOrderPaid } from "../orders/order-service";
import type { Request, Response } from "../http/server";

export async function handleWebhook(req: Request, res: Response, secret: string) {
  const event = parse(req.rawBody, req.header("acme-signature") ?? "", secret);
  if (event.type === "payment.succeeded") {
    await markOrderPaid(String(event.data["orderId"]));
  }
  res.status(204).end();
}
