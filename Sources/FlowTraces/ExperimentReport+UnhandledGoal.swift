import FlowKit

/// A goal that traces never handled a request as, told from one nobody reached.
extension ExperimentReport {
    /// A goal the traces never handled a request as.
    package struct UnhandledGoal: Sendable, Hashable {
        /// The handled request nearest to the goal by name, when one is near enough to be what was meant.
        package var nearest: String?
    }

    /// `goal` as a goal the traces in `files` never handled, with the handled request nearest to it; `nil`
    /// when they handled it.
    ///
    /// What it keeps is the nearest name so far and the names it measured, a few thousand at most, of a
    /// length that can be near: a trace of a million names, or of names a megabyte long, is read in the same
    /// memory as one of ten.
    static func unhandledGoal(_ goal: String, in files: [String]) throws(TraceError) -> UnhandledGoal? {
        var nearest: (distance: Int, name: String)?
        var measured = Set<String>()
        let longest = 4 * (Suggestion.maxNameLength + 3)
        for file in files {
            let reader = try TraceReader(path: file, reading: membersRead)
            while let (event, _) = try reader.nextInOrder() {
                guard event.kind == .handled, let name = event["request"]?.string else { continue }
                // The first pass read every line: nothing further down can be wrong.
                guard name != goal else { return nil }
                // Bytes first: counting the characters of a name a megabyte long costs a megabyte.
                guard name.utf8.count <= longest, !measured.contains(name) else { continue }
                if measured.count < 4_096 { measured.insert(name) }
                // Each name alone, as among them all: the nearest is the least distance, then the first name.
                guard let near = Suggestion.closest(to: goal, among: CollectionOfOne(name)) else { continue }
                let distance = Suggestion.editDistance(goal, near)
                if nearest.map({ (distance, near) < ($0.distance, $0.name) }) ?? true { nearest = (distance, near) }
            }
        }
        return UnhandledGoal(nearest: nearest?.name)
    }
}
