export class AuthError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = "AuthError";
  }
}

export class RefreshTokenExpiredError extends AuthError {
  constructor(readonly expiredAt: Date) {
    super(`refresh token expired at ${expiredAt.toISOString()}`, "refresh_token_expired");
    this.name = "RefreshTokenExpiredError";
  }
}

export class RefreshTokenRevokedError extends AuthError {
  constructor() {
    super("refresh token was revoked", "refresh_token_revoked");
    this.name = "RefreshTokenRevokedError";
  }
}
