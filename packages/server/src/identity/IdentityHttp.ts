import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Api, CSRF_COOKIE, CurrentUser, ok, SESSION_COOKIE } from "@timebank/domain"
import { Effect, Option } from "effect"
import { AppConfig } from "../platform/AppConfig.js"
import { clientIp } from "../platform/ClientIp.js"
import { IdentityService, type LoginInput } from "./IdentityService.js"
import { PasswordResetService } from "./PasswordResetService.js"
import { ProfileService } from "./ProfileService.js"
import { newToken, REFRESH_TOKEN_SECONDS } from "./Tokens.js"

const setCookie = (name: string, value: string, options: { httpOnly: boolean; maxAge: number; secure: boolean }) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.unsafeSetCookie(response, name, value, {
      httpOnly: options.httpOnly,
      sameSite: "lax",
      path: "/",
      maxAge: `${options.maxAge} seconds`,
      secure: options.secure
    }))
  )

export const AuthHttpLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* IdentityService
    const resets = yield* PasswordResetService
    const { cookieSecure, trustProxy } = yield* AppConfig

    const login = (payload: LoginInput) =>
      Effect.gen(function*() {
        const signedIn = yield* identity.login(payload, yield* clientIp(trustProxy))
        if (Option.isSome(signedIn.sessionCookie)) {
          yield* setCookie(SESSION_COOKIE, signedIn.sessionCookie.value, {
            httpOnly: true,
            maxAge: REFRESH_TOKEN_SECONDS,
            secure: cookieSecure
          })
        }
        return signedIn.tokens
      })

    return handlers
      .handle("register", ({ payload }) => Effect.map(identity.register(payload), ok))
      .handle("login", ({ payload }) => login(payload))
      .handle("loginLegacyPath", ({ payload }) => login(payload))
      .handle("refresh", ({ payload }) => identity.refresh(payload.refresh_token))
      .handle("requestPasswordReset", ({ payload }) => Effect.map(resets.request(payload.email), ok))
      .handle("confirmPasswordReset", ({ payload }) => Effect.map(resets.confirm(payload), ok))
      .handle("csrfToken", () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const token = request.cookies[CSRF_COOKIE] || newToken()
          yield* setCookie(CSRF_COOKIE, token, { httpOnly: false, maxAge: REFRESH_TOKEN_SECONDS, secure: cookieSecure })
          return { success: true as const, data: { csrf_token: token } }
        }))
  }))

export const SessionHttpLive = HttpApiBuilder.group(Api, "session", (handlers) =>
  Effect.gen(function*() {
    const identity = yield* IdentityService
    const { cookieSecure } = yield* AppConfig
    return handlers.handle("logout", () =>
      Effect.gen(function*() {
        yield* identity.logout(yield* CurrentUser)
        yield* setCookie(SESSION_COOKIE, "", { httpOnly: true, maxAge: 0, secure: cookieSecure })
        return ok({ logged_out: true as const })
      }))
  }))

export const UsersHttpLive = HttpApiBuilder.group(Api, "users", (handlers) =>
  Effect.gen(function*() {
    const profiles = yield* ProfileService
    return handlers
      .handle("me", () => Effect.map(profiles.me, ok))
      .handle("updateMe", ({ payload }) => Effect.map(profiles.updateMe(payload), ok))
      .handle("notifications", () => Effect.map(profiles.preferences, ok))
      .handle("updateNotifications", ({ payload }) => Effect.map(profiles.updatePreferences(payload), ok))
      .handle("get", ({ path }) => Effect.map(profiles.publicProfile(path.id), ok))
  }))
