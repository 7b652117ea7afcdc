import Testing

/// docs/traces.md tells a reader with DuckDB's Python package alone to run its SQL blocks a statement at a
/// time, each block split at its `;`: every piece must then be a whole statement. A `;` in a comment split
/// one in the middle of its comment, and DuckDB refused the piece after it (`syntax error at or near "a"`).
struct TraceSQLDocTests {
    @Test func everySemicolonInTheTracesDocSQLEndsAStatement() throws {
        let doc = try readText(Repository.path("docs/traces.md"))
        let blocks = Self.sqlBlocks(of: doc)
        #expect(blocks.count >= 4)

        for block in blocks {
            for piece in block.split(separator: ";") {
                // The piece without its comment lines, as DuckDB's parser is left with once it skips them.
                let code = piece.split(separator: "\n").filter {
                    !$0.trimmingPrefix(while: \.isWhitespace).hasPrefix("--")
                }
                .joined(separator: "\n").trimmingPrefix(while: \.isWhitespace)
                guard !code.isEmpty else { continue }
                #expect(
                    code.hasPrefix("CREATE ") || code.hasPrefix("SELECT "),
                    "a piece of a block split at ';' begins \(code.prefix(40).debugDescription)")
            }
        }
    }

    // MARK: - Test Helpers

    /// The text of each ```sql block of `doc`, in order.
    private static func sqlBlocks(of doc: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```sql" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
