# Build stage: Go with OpenBLAS headers and library.
FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libopenblas-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -tags openblas -trimpath -o /out/manifactor ./cmd/manifactor

# Run stage: slim Debian with the OpenBLAS runtime only.
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libopenblas0 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/manifactor /usr/local/bin/manifactor
ENTRYPOINT ["manifactor"]
CMD ["demo"]
