# syntax=docker/dockerfile:1
#
# ddblocal as a container:
#   docker build -t ddblocal . && docker run -p 8000:8000 -v ddb:/data ddblocal
#
# The final image is FROM scratch: the static binary, a CA bundle, a passwd
# entry for the non-root user (65532) and writable /data and /tmp, about
# 25 MB (the binary 24.9 MB). Where the binary comes from is a build argument:
#
# - BINARY=build (the default) compiles it in a golang stage, for the
#   platform asked for (--platform linux/arm64 cross-compiles; nothing is
#   emulated). This is what `docker build .` on a laptop does; podman
#   (buildah 1.28) needs it spelled out: --build-arg BINARY=build.
# - BINARY=prebuilt takes the same files from prebuilt/linux-$TARGETARCH/
#   in the build context (root/ddblocal, root/etc/{passwd,group},
#   root/etc/ssl/certs/ca-certificates.crt, and the empty folders
#   owned/data and owned/tmp), so that a machine that can pull no image at
#   all builds the same image: an unused stage is never pulled.
#   integration/container_test.go builds it so with podman;
#   docs/containers-and-ci.md says how to by hand.
ARG BINARY=build

FROM --platform=$BUILDPLATFORM golang:1.26-bookworm AS build
ARG TARGETOS TARGETARCH
WORKDIR /src
# Modules first, as their own layer: rebuilt only when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# /out is what the final stage takes: root/ as root's, owned/ as the server's.
# grpcnotrace leaves out gRPC's request tracing (golang.org/x/net/trace and
# html/template), which ddblocal never enables. Without it text/template's
# method lookup by name turns off the linker's method pruning: the binary is
# 30.5 MB instead of 24.9 (integration's TestMethodPruning guards the rest).
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -tags grpcnotrace -trimpath -ldflags "-s -w" -o /out/root/ddblocal . \
 && mkdir -p /out/root/etc/ssl/certs /out/owned/data /out/owned/tmp \
 && cp container/passwd container/group /out/root/etc/ \
 && cp /etc/ssl/certs/ca-certificates.crt /out/root/etc/ssl/certs/

FROM scratch AS prebuilt
ARG TARGETARCH
COPY prebuilt/linux-${TARGETARCH}/ /out/

FROM ${BINARY} AS binary

FROM scratch
COPY --from=binary /out/root/ /
# The image has no shell to create directories with: /data and /tmp come
# from the binary stage, owned by the server's user. A new named volume
# mounted on /data copies this ownership, so the server can write to it.
COPY --from=binary --chown=65532:65532 /out/owned/ /
USER 65532:65532
WORKDIR /data
EXPOSE 8000
VOLUME /data
# No shell or curl either: the binary checks itself. It reads DDBLOCAL_PORT
# (and DDBLOCAL_TLS_*) as the server does, so a port changed that way is
# followed. Keeping it needs the docker image format: `podman build
# --format docker` (OCI images have no HEALTHCHECK).
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 CMD ["/ddblocal", "healthcheck"]
ENTRYPOINT ["/ddblocal"]
CMD ["--db-path", "/data/ddblocal.db"]
