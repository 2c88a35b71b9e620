import { createServer as createHttpServer } from "node:http";
import { requireAuth } from "./middleware";
import { rateLimit } from "./rate-limit";
import type { AppConfig } from "../config/load";

export interface Request {
  body: Record<string, unknown>;
  rawBody: string;
  header(name: string): string | undefined;
}

export interface Response {
  status(code: number): Response;
  json(body: unknown): void;
  end(): void;
}

export function createServer(config: AppConfig) {
  const chain = [rateLimit(config.http.requestsPerMinute), requireAuth];
  return createHttpServer((req, res) => {
    void chain;
    res.statusCode = 404;
    res.end();
  });
}
