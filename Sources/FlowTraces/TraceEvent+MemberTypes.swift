import FlowKit

extension TraceEvent {
    /// The type flowhost writes a member of a trace's lines as.
    enum MemberType: CustomStringConvertible {
        case string
        case bool
        /// A whole number of 0 or more.
        case count

        var description: String {
            switch self {
            case .string: "a string"
            case .bool: "true or false"
            case .count: "a whole number of 0 or more"
            }
        }

        /// Whether `value` is of this type.
        func holds(_ value: JSONValue) -> Bool {
            switch self {
            case .string: value.string != nil
            case .bool: value.bool != nil
            case .count: value.int.map { $0 >= 0 } ?? false
            }
        }
    }

    /// The members `replay`, `experiments report` and `graph --trace` read, in whichever kind of line they
    /// are, with the type flowhost writes each as. A trace is anyone's text: a member of another type would
    /// otherwise be read as missing, an input's command as the empty command, an exposure as none, and a
    /// replay or report would go on as if the trace said so.
    static let memberTypes: [String: MemberType] = [
        "command": .string, "at": .string, "module": .string, "unprompted": .bool, "late": .bool,
        "subject": .string, "experiment": .string, "variant": .string, "request": .string, "requestId": .count,
        "manager": .string, "plugin": .string, "depth": .count, "manifest": .string, "goal": .string,
        "subjects": .count, "ending": .string,
    ]

    /// Why the members of a `kind` line, `fields`, are not what flowhost writes, if they are not: a member of
    /// ``memberTypes`` of another type. `null` is read as the member left out, as hand-written traces have it.
    static func wrongMember(in fields: [String: JSONValue], kind: String) -> String? {
        func isWrong(_ name: String, _ value: JSONValue) -> Bool {
            guard let type = memberTypes[name] else { return false }
            return !value.isNull && !type.holds(value)
        }
        // Sorted only once one is wrong, so that every line is not sorted to read it: the first by name.
        guard fields.contains(where: isWrong),
            let (name, value) = fields.sorted(by: { $0.key < $1.key }).first(where: isWrong),
            let type = memberTypes[name]
        else { return nil }
        return "the '\(kind)' event's \"\(name)\" must be \(type), not \(value.typeName)"
    }
}
