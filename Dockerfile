# syntax=docker/dockerfile:1
#
# ddblocal as a container: docker run -p 8000:8000 -v ddb:/data ddblocal
#
# There is no Docker engine on the machine this was written on, so the image
# itself is not built in CI. What the final stage relies on is tested instead:
# integration/binary_flags_test.go (TestBinaryStatic) builds the binary with
# exactly the command below, checks with debug/elf that it is statically
# linked (no interpreter, no dynamic section, so no libc is needed), and runs
# it with an empty environment from an empty working directory.

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, as their own layer: it is rebuilt only when go.mod/go.sum change.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /ddblocal .
# The final image has no shell to create directories with, so /data is made
# here, owned by distroless's nonroot user (uid/gid 65532). A new named volume
# mounted on /data copies this ownership, so the server can write to it.
RUN mkdir /data && chown 65532:65532 /data

# static-debian12 has no libc, but it has CA certificates, /etc/passwd for
# the nonroot user and a writable /tmp.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /ddblocal /ddblocal
COPY --from=build --chown=65532:65532 /data /data
USER 65532:65532
WORKDIR /data
EXPOSE 8000
VOLUME /data
# The image has no shell or curl: the binary checks itself. It reads
# DDBLOCAL_PORT (and DDBLOCAL_TLS_*) as the server does, so a changed port
# is followed. integration/binary_commands_test.go (TestBinaryHealthcheck)
# runs exactly this command with only DDBLOCAL_PORT in the environment.
HEALTHCHECK --interval=5s --timeout=3s --start-period=10s --retries=3 CMD ["/ddblocal", "healthcheck"]
ENTRYPOINT ["/ddblocal"]
CMD ["--db-path", "/data/ddblocal.db"]
