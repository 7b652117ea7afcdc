import CSHA256

/// SHA-256 (FIPS 180-4), for checking a plugin library against the digest in its manifest, and the bytes a
/// host opens against the ones its probe loaded.
///
/// The toolchain ships no hashing library on Linux, and the host uses no packages. Where the processor has
/// the SHA extensions (x86-64 SHA-NI), the blocks go through them (`CSHA256`): an eager start with a warm
/// registry cache hashes every library it opens, and these rounds took half of its processor time (200
/// libraries of 100 KB: 86 of 168 ms); elsewhere, through the portable rounds below.
package struct SHA256 {
    /// Whether ``hex(_:)`` uses the processor's SHA extensions.
    package static let usesSHAExtensions = flowhost_sha256_has_sha_extensions() != 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The digest of `bytes` as 64 lowercase hexadecimal digits, as `sha256sum` prints it.
    ///
    /// The whole blocks are hashed where the bytes are; only the last, padded block or two are copied.
    package static func hex(_ bytes: [UInt8]) -> String { hex(bytes, usingSHAExtensions: usesSHAExtensions) }

    /// ``hex(_:)`` with the portable rounds when `usingSHAExtensions` is false (tests compare the two); true
    /// only where ``usesSHAExtensions``.
    package static func hex(_ bytes: [UInt8], usingSHAExtensions: Bool) -> String {
        precondition(!usingSHAExtensions || usesSHAExtensions, "this processor has no SHA extensions")
        var state = SHA256()
        state.usesSHAExtensions = usingSHAExtensions
        bytes.withUnsafeBytes { raw in
            let whole = raw.count - raw.count % 64
            state.compress(UnsafeRawBufferPointer(rebasing: raw[..<whole]))
            // What is left, then 0x80, zeros to 56 bytes past a block's start, and the length in bits.
            var tail = Array(raw[whole...])
            tail.append(0x80)
            while tail.count % 64 != 56 { tail.append(0) }
            withUnsafeBytes(of: (UInt64(raw.count) &* 8).bigEndian) { tail.append(contentsOf: $0) }
            tail.withUnsafeBytes { state.compress($0) }
        }
        return state.h.map { word in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 8 - digits.count) + digits
        }.joined()
    }

    /// The hash so far.
    private var h: [UInt32] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]

    /// Whether ``compress(_:)`` uses the processor's SHA extensions.
    private var usesSHAExtensions = false

    /// Adds `blocks`, a whole number of 64-byte blocks, to the hash.
    private mutating func compress(_ blocks: UnsafeRawBufferPointer) {
        precondition(blocks.count % 64 == 0)
        guard let start = blocks.baseAddress, !blocks.isEmpty else { return }
        if usesSHAExtensions {
            // Reads exactly the `blocks.count / 64` whole blocks of `blocks` and the 64 words of `k`, and writes
            // the 8 words of `h`.
            Self.k.withUnsafeBufferPointer { k in
                h.withUnsafeMutableBufferPointer { state in
                    flowhost_sha256_compress_with_sha_extensions(
                        state.baseAddress, start, blocks.count / 64, k.baseAddress)
                }
            }
            return
        }
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for block in stride(from: 0, to: blocks.count, by: 64) {
                for i in 0..<16 {
                    w[i] = UInt32(bigEndian: blocks.loadUnaligned(fromByteOffset: block + i * 4, as: UInt32.self))
                }
                for i in 16..<64 {
                    let s0 = w[i - 15].rotatedRight(7) ^ w[i - 15].rotatedRight(18) ^ (w[i - 15] >> 3)
                    let s1 = w[i - 2].rotatedRight(17) ^ w[i - 2].rotatedRight(19) ^ (w[i - 2] >> 10)
                    w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
                for i in 0..<64 {
                    let s1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = hh &+ s1 &+ choice &+ Self.k[i] &+ w[i]
                    let s0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    let t2 = s0 &+ majority
                    (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                }
                h[0] &+= a
                h[1] &+= b
                h[2] &+= c
                h[3] &+= d
                h[4] &+= e
                h[5] &+= f
                h[6] &+= g
                h[7] &+= hh
            }
        }
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self >> count) | (self << (32 - count))
    }
}
