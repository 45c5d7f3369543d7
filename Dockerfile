# Launchwatch web server image. The compose file runs it against a separate
# postgres container through DATABASE_URL, so this image carries no database.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/web ./cmd/web \
 && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/launchwatch ./cmd/launchwatch

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 launchwatch
COPY --from=build /out/web /out/launchwatch /usr/local/bin/
USER launchwatch
ENV LAUNCHWATCH_ADDR=0.0.0.0:8080
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/web"]
