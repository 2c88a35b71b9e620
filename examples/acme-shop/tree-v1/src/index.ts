import { createServer } from "./http/server";
import { loadConfig } from "./config/load";

const config = loadConfig(process.env.ACME_ENV ?? "development");
createServer(config).listen(config.http.port);
