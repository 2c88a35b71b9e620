import { parse } from "./args";
import { reindexProducts } from "../inventory/stock";

export async function main(argv: string[]): Promise<number> {
  const options = parse(argv);
  switch (options.command) {
    case "reindex":
      await reindexProducts(Boolean(options.flags["dry-run"]));
      return 0;
    default:
      console.log("usage: acme reindex [--dry-run]");
      return options.command === "help" ? 0 : 2;
  }
}
