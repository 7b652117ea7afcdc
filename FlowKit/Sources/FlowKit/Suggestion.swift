/// "Did you mean" for names people type: request names, actions, modules, deep link URLs.
public enum Suggestion {
    /// The longest name ``closest(to:among:maxDistance:)`` looks for a suggestion for: 64 characters.
    public static let maxNameLength = 64

    /// The candidate nearest to `name` by ``editDistance(_:_:)`` when it is near enough to be what a typo
    /// meant: at most `maxDistance` edits, fewer edits than `name` has characters, and at most half as many
    /// as the longer of the two has (`wave` is no typo of `done`: 3 edits in 4 characters). Of candidates as near,
    /// the one sharing the longer start or end with `name` (`tack` is `stack` with its first letter dropped, not
    /// `back`), then the one that sorts first, so the answer never depends on the candidates' order; `name`
    /// itself is never an answer.
    /// A name longer than ``maxNameLength`` gets no suggestion: it is no typo, and the search would cost the
    /// product of the lengths.
    public static func closest(to name: String, among candidates: some Sequence<String>, maxDistance: Int = 3)
        -> String?
    {
        guard name.count <= maxNameLength else { return nil }
        let length = name.count
        // The distance is at least the difference in length, so far longer or shorter candidates are no
        // answer, and measuring them would cost the product of the lengths.
        let scored = Set(candidates).subtracting([name]).filter { abs($0.count - length) <= maxDistance }
            .map { (candidate: $0, distance: editDistance(name, $0), shared: -sharedEnds(name, $0)) }
            // Most of the longer name must survive the edits, or the two merely share a length.
            .filter { 2 * $0.distance <= max(length, $0.candidate.count) }
        guard
            let best = scored.min(by: {
                ($0.distance, $0.shared, $0.candidate) < ($1.distance, $1.shared, $1.candidate)
            }),
            best.distance <= maxDistance, best.distance < name.count
        else { return nil }
        return best.candidate
    }

    /// How many characters `a` and `b` share at their start or at their end, whichever is more.
    private static func sharedEnds(_ a: String, _ b: String) -> Int {
        let start = zip(a, b).prefix { $0 == $1 }.count
        let end = zip(a.reversed(), b.reversed()).prefix { $0 == $1 }.count
        return max(start, end)
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
