import { SessionService } from "./session-service";
import { AuthError } from "./errors";
import type { Request, Response } from "../http/server";

export async function handleRefresh(service: SessionService, req: Request, res: Response) {
  try {
    const session = await service.createSession(String(req.body.refreshToken));
    res.status(200).json(session);
  } catch (err) {
    if (err instanceof AuthError) {
      res.status(401).json({ error: err.code });
      return;
    }
    throw err;
  }
}
