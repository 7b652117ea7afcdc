extension CompletionScript {
    /// A zsh script: a `#compdef` function built on `_arguments`, which works both from `fpath` and
    /// when sourced (then it registers itself with `compdef`).
    var zsh: String {
        let function = functionName
        var script = """
            #compdef \(program)
            # zsh completion for \(program), made by `\(program) completion zsh`.
            # Load it now:     source <(\(program) completion zsh)
            # or install it:   \(program) completion zsh > "${fpath[1]}/\(function)"

            \(function)() {
                local curcontext=$curcontext state line
                local -a commands
                commands=(

            """
        for command in commands {
            script += "        \(zshQuoted("\(command.name):\(command.summary)"))\n"
        }
        script += "    )\n    _arguments -C \\\n"
        for option in topLevelOptions + globalOptions {
            let exclusive = option.value == nil ? "(- *)" : ""
            script += "        \(zshQuoted(exclusive + zshSpec(option))) \\\n"
        }
        script += """
                    '1: :->command' \\
                    '*:: :->argument' && return 0
                case $state in
                command)
                    _describe -t commands \(zshQuoted("\(program) command")) commands ;;
                argument)
                    case $words[1] in

            """
        for command in commands {
            var specs = options(of: command).map(zshSpec)
            if let operand = command.operand {
                specs += zshOperandSpecs(operand, command.operandValue, isOptional: command.operandIsOptional)
            }
            script += "        \(command.name))\n            _arguments"
            for spec in specs { script += " \\\n                \(zshQuoted(spec))" }
            script += " ;;\n"
        }
        script += """
                    esac ;;
                esac
            }

            if [[ $funcstack[1] == \(function) ]]; then
                \(function) "$@"
            else
                compdef \(function) \(program)
            fi

            """
        return script
    }

    /// `--name[summary]` or `--name[summary]:PLACEHOLDER:action`, `*` first when repeatable.
    private func zshSpec(_ option: CommandSpec.Option) -> String {
        let summary = option.summary.map { "[]:\\".contains($0) ? "\\\($0)" : String($0) }.joined()
        let head = (option.repeatable ? "*" : "") + option.name + "[\(summary)]"
        guard let value = option.value else { return head }
        return head + ":\(option.placeholder):\(zshAction(value))"
    }

    /// The operand's specs: `:MANIFEST:_files`; for `.word`, the word first, then the rest (`1:report:(report)`,
    /// `*:TRACE...:_files`).
    private func zshOperandSpecs(_ operand: String, _ value: CommandSpec.Value, isOptional: Bool) -> [String] {
        guard case .word(_, let following) = value else {
            return ["\(isOptional ? "::" : ":")\(operand):\(zshAction(value))"]
        }
        let (word, rest) = operand.splitFirstWord()
        return ["1:\(word):\(zshAction(value))", "*:\(rest):\(zshAction(following.value))"]
    }

    private func zshAction(_ value: CommandSpec.Value) -> String {
        switch value {
        case .file: "_files"
        case .directory: "_files -/"
        case .choice(let words), .word(let words, then: _): "(\(words.joined(separator: " ")))"
        case .text: " "
        }
    }

    /// `text` in single quotes, for zsh.
    private func zshQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }
}
