/// The experiments' requests under way that ``ExperimentReport/RoutedRequests`` follows until they end.
extension ExperimentReport {
    /// The experiments' requests a manager started on (`handling`) and that have not ended yet, kept so that
    /// starting or ending one costs the same however many are under way: requests may end in any order (each
    /// by its `requestId`), and a search of them all for every end, with a removal from the middle of an array,
    /// made a trace of many requests ended oldest first quadratic.
    struct RequestsUnderWay {
        /// What a `handled` or `failed` event ends a request by: its `requestId` when it has one, else its name
        /// and depth, among the requests without an id (in a trace written before requests had ids).
        enum Key: Hashable {
            case id(Int)
            case named(String, depth: Int)

            /// The key of a request event's `requestId`, or when it has none, of its `request` and `depth`.
            init(id: Int?, request: String, depth: Int) {
                self = id.map(Key.id) ?? .named(request, depth: depth)
            }
        }

        /// A request under way: the experiment and variant whose manager started on it, and its name.
        struct Request {
            var experiment: String
            var variant: String
            var request: String
        }

        /// The requests under way in the order they started, innermost last, each with its key; `nil` where
        /// one ended since the last ``compact()``: a tombstone, so that an end leaves the indices of the others
        /// as they are in ``started``.
        private var started: [(key: Key, request: Request)?] = []
        /// key -> the indices in ``started`` of the requests under way with that key, in the order they started:
        /// an event ends the last one of its key, which is the last of its stack.
        private var stacks: [Key: [Int]] = [:]
        /// The tombstones in ``started``.
        private var ended = 0

        /// Records `request`, started with `key`.
        mutating func start(_ request: Request, key: Key) {
            stacks[key, default: []].append(started.count)
            started.append((key, request))
        }

        /// Ends the request under way that an event with `key` ends: the last one started with that key.
        ///
        /// - Returns: The request ended; `nil` when none under way has `key`.
        mutating func end(_ key: Key) -> Request? {
            // In place (not a copy of the stack, taken and put back), which would cost the stack's length.
            guard let index = stacks[key]?.popLast(), let request = started[index]?.request else { return nil }
            if stacks[key]?.isEmpty == true { stacks[key] = nil }
            started[index] = nil
            ended += 1
            // Once tombstones are most of ``started``: a compaction costs at most twice the ends since the last.
            if ended > started.count / 2 { compact() }
            return request
        }

        /// Ends every request under way: the host ended with them.
        ///
        /// - Returns: The requests, innermost (last started) first.
        mutating func endAll() -> [Request] {
            let requests = started.reversed().compactMap { $0?.request }
            self = RequestsUnderWay()
            return requests
        }

        /// Drops the tombstones from ``started``, and renumbers ``stacks`` to the indices that are left.
        private mutating func compact() {
            started.removeAll { $0 == nil }
            stacks = [:]
            for (index, entry) in started.enumerated() {
                if let key = entry?.key { stacks[key, default: []].append(index) }
            }
            ended = 0
        }
    }
}
