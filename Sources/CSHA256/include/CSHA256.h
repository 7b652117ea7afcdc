// SHA-256's compression function with the processor's SHA instructions (x86-64 SHA-NI), for HostSupport's
// SHA256, which falls back to its portable Swift rounds where they are missing. Swift cannot reach these
// instructions: they exist only as C intrinsics.
#pragma once
#include <stddef.h>
#include <stdint.h>

/// 1 when this processor has the SHA extensions and SSE4.1 that
/// `flowhost_sha256_compress_with_sha_extensions` needs, else 0 (any processor that is not x86-64).
int flowhost_sha256_has_sha_extensions(void);

/// Adds the `count` 64-byte blocks at `blocks` to the hash `state` (a, b, ..., h), exactly as FIPS 180-4's
/// compression function does for each block in turn, with `k`, its 64 round constants (SHA256.swift's table,
/// the one copy of them). Call it only when `flowhost_sha256_has_sha_extensions()` is 1; it reads `64 * count`
/// bytes at `blocks` and the 64 words at `k`, nothing else.
void flowhost_sha256_compress_with_sha_extensions(
    uint32_t state[8], const void *blocks, size_t count, const uint32_t k[64]);
