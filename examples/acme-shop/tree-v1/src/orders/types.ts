export interface OrderLine {
  sku: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Order {
  id: string;
  customerId: string;
  lines: OrderLine[];
  status: "pending" | "paid" | "cancelled";
  discountCode?: string;
}
