# The API image. It runs the TypeScript sources through tsx, the same way `npm start` does.
# Node as package.json "engines" asks (^20.19.0 || >=22.12.0): the 20 line that CI runs; npm ci below checks it.
FROM node:20-slim

WORKDIR /app

# Copy everything (see .dockerignore) so npm ci sees every workspace's package.json.
COPY . .

# Exactly the lockfile, refusing a Node that does not satisfy "engines"; no dev tools (tests, lint, types) in the
# image. Images always get DATABASE_URL, so the embedded PostgreSQL binaries (optional dependencies) stay unused.
RUN npm ci --omit=dev --engine-strict --no-audit --no-fund && npm cache clean --force

ENV PORT=3000
EXPOSE 3000 34431

# A young generation of 32 MB semi-spaces (decisions "Read path and edge": the runtime's heap), as `npm start`.
CMD ["node", "--max-semi-space-size=32", "--import", "tsx", "apps/api/src/main.ts"]
