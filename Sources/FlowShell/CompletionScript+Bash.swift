extension CompletionScript {
    /// A bash script defining the completion function and registering it with `complete -F`.
    ///
    /// It finds the subcommand as the first word that is not an option (nor the value of a global
    /// option), then completes the value of the option before the cursor, else options after a `-`, else
    /// the operand. It uses only bash builtins, not the bash-completion package.
    var bash: String {
        let function = functionName
        let globalValued = globalOptions.filter { $0.value != nil }
        var script = """
            # bash completion for \(program), made by `\(program) completion bash`.
            # Load it now:     source <(\(program) completion bash)
            # or install it:   \(program) completion bash > ~/.local/share/bash-completion/completions/\(program)

            \(function)_reply() {
                # The words of "$1" (one per line) into COMPREPLY; file names get quoting and a slash on directories.
                if [[ $2 == names ]]; then compopt -o filenames 2>/dev/null; fi
                mapfile -t COMPREPLY <<<"$1"
                if [[ -z ${COMPREPLY[0]} ]]; then COMPREPLY=(); fi
            }

            \(function)() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=
                if ((COMP_CWORD > 0)); then prev=${COMP_WORDS[COMP_CWORD - 1]}; fi
                local command= i
                for ((i = 1; i < COMP_CWORD; i++)); do
                    case ${COMP_WORDS[i]} in
            \(globalValued.isEmpty ? "" : "            \(globalValued.map(\.name).joined(separator: "|"))) ((i++)) ;;\n")\
                        -*) ;;
                        *) command=${COMP_WORDS[i]}; break ;;
                    esac
                done
                COMPREPLY=()
                case $prev in

            """
        for option in globalValued {
            script += "        \(option.name)) \(bashCompletion(of: option.value!)); return 0 ;;\n"
        }
        script += """
                esac
                case $command in
                '')
                    \(function)_reply "$(compgen -W \(bashWords(commands.map(\.name) + (topLevelOptions + globalOptions).map(\.name))) -- "$cur")" ;;

            """
        for command in commands {
            let valued = command.options.filter { $0.value != nil }
            script += "    \(command.name))\n"
            if !valued.isEmpty {
                script += "        case $prev in\n"
                for option in valued {
                    script += "            \(option.name)) \(bashCompletion(of: option.value!)); return 0 ;;\n"
                }
                script += "        esac\n"
            }
            let optionWords = bashWords(options(of: command).map(\.name))
            let operand = command.operand == nil ? nil : bashOperand(command.operandValue)
            if let operand {
                script += """
                            if [[ $cur == -* ]]; then
                                \(function)_reply "$(compgen -W \(optionWords) -- "$cur")"
                            else
                                \(operand)
                            fi ;;

                    """
            } else {
                script += "        \(function)_reply \"$(compgen -W \(optionWords) -- \"$cur\")\" ;;\n"
            }
        }
        script += """
                esac
                return 0
            }

            complete -F \(function) \(program)

            """
        return script
    }

    /// The command that completes `value` into COMPREPLY.
    private func bashCompletion(of value: CommandSpec.Value) -> String {
        switch value {
        case .file: "\(functionName)_reply \"$(compgen -f -- \"$cur\")\" names"
        case .directory: "\(functionName)_reply \"$(compgen -d -- \"$cur\")\" names"
        case .choice(let words), .word(let words, then: _):
            "\(functionName)_reply \"$(compgen -W \(bashWords(words)) -- \"$cur\")\""
        case .text: "COMPREPLY=()"
        }
    }

    /// The commands that complete an operand of `value` into COMPREPLY. For `.word` and `.choice`, one of the
    /// words until one of them follows the subcommand (the word at `i`), then what comes after it (after a
    /// choice, nothing).
    private func bashOperand(_ value: CommandSpec.Value) -> String {
        let (words, then): ([String], CommandSpec.Value)
        switch value {
        case .word(let choices, let after): (words, then) = (choices, after.value)
        case .choice(let choices): (words, then) = (choices, .text)
        default: return bashCompletion(of: value)
        }
        return [
            "local word= j",
            "for ((j = i + 1; j < COMP_CWORD; j++)); do",
            "    case ${COMP_WORDS[j]} in \(words.joined(separator: "|"))) word=${COMP_WORDS[j]}; break ;; esac",
            "done",
            "if [[ -z $word ]]; then \(bashCompletion(of: value)); else \(bashCompletion(of: then)); fi",
        ].joined(separator: "\n            ")
    }

    /// Words as one single-quoted bash word, for `compgen -W`.
    private func bashWords(_ words: [String]) -> String {
        "'" + words.joined(separator: " ").replacingAll("'", with: "'\\''") + "'"
    }
}

extension String {
    /// The string with every occurrence of `target` replaced, without Foundation.
    package func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
