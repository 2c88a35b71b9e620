export interface CliOptions {
  command: string;
  flags: Record<string, string | boolean>;
  positional: string[];
}

/** Parses command-line arguments for the admin CLI (`acme <command> [--flag[=value]]`). */
export function parse(argv: string[]): CliOptions {
  const [command = "help", ...rest] = argv;
  const flags: Record<string, string | boolean> = {};
  const positional: string[] = [];
  for (const arg of rest) {
    if (arg.startsWith("--")) {
      const [name, value] = arg.slice(2).split("=", 2);
      flags[name] = value ?? true;
    } else {
      positional.push(arg);
    }
  }
  return { command, flags, positional };
}
