import { readFileSync } from "node:fs";
import { parse as parseYaml } from "../../vendor/yaml-mini/index.js";

export interface AppConfig {
  http: { port: number; requestsPerMinute: number };
  auth: { refreshTokenTtlDays: number };
  retry: { maxAttempts: number; baseDelayMs: number };
}

export function loadConfig(env: string): AppConfig {
  const base = parseYaml(readFileSync("config/default.yaml", "utf8")) as AppConfig;
  const overlay = parseYaml(readFileSync(`config/${env}.yaml`, "utf8")) as Partial<AppConfig>;
  return { ...base, ...overlay };
}
