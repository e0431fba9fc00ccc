# One image for both Herald processes; docker-compose.yml chooses the entry point
# (`node ... --import tsx src/worker.ts` or `node ... --import tsx src/api/server.ts`).
FROM node:20-slim

WORKDIR /app

# tsx runs the TypeScript sources directly and is a devDependency, so `npm ci --omit=dev`
# would leave the image unable to start: the whole lockfile is installed. NODE_ENV is set
# only after this step because npm ci skips devDependencies when it is "production".
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src
# The workers' preload (issue 16: the workflow thread without the SDK's stack-trace hook).
COPY scripts/workflow-thread-preload.cjs ./scripts/
# The workers' prebuilt workflow bundle (compose sets HERALD_WORKFLOW_BUNDLE to it).
RUN node --import tsx src/workflow-bundle.ts /app/workflow-bundle.js

# HERALD_DATA_DIR defaults to .data under the working directory; the unprivileged user
# must be able to create files there even though /app itself belongs to root.
RUN mkdir -p /app/.data && chown node:node /app/.data

ENV NODE_ENV=production
USER node

EXPOSE 3000
# The worker as compose runs it: the heap cap and V8 flags of every Herald process (README).
CMD ["node", "--max-old-space-size=320", "--single-threaded", "--require=./scripts/workflow-thread-preload.cjs", "--import", "tsx", "src/worker.ts"]
