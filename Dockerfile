# The API image. It runs the TypeScript sources through tsx, the same way `npm start` does.
FROM node:20-slim

WORKDIR /app

# Copy everything (see .dockerignore) so npm ci sees every workspace's package.json.
COPY . .

# The embedded PostgreSQL binaries are an optional x64 dependency; images always get DATABASE_URL.
RUN npm ci && npm cache clean --force

ENV PORT=3000
EXPOSE 3000 34431

CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
