import Testing

/// A start request that fails before any manager takes it (its plugin's library not found) is said once: by
/// the run's error, which names the manifest and the start request, not by its event line as well.
struct StartFailureOutputTests {
    /// A run of the manifest `text`, written to `app.json` in a fresh directory, with its own probe cache and
    /// no input; traced into `t.jsonl` there when `traced`.
    private struct Run {
        let directory: TemporaryDirectory
        let manifest: String
        let trace: String
        let output: Subprocess

        init(_ text: String, traced: Bool = false) throws {
            directory = try TemporaryDirectory()
            manifest = try directory.file("app.json", containing: text)
            trace = directory.path + "/t.jsonl"
            output = try Subprocess.run(
                BuildProducts.path(of: "flowhost"), ["run", manifest] + (traced ? ["--trace", trace] : []), input: "",
                environment: ["XDG_CACHE_HOME": directory.path + "/cache"])
        }
    }

    @Test func aStartRequestWhosePluginsLibraryIsMissingIsSaidOnce() throws {
        let started = try Run(
            """
            {"manifestVersion": 1, "plugins": {"welcome": "libWelcomeMissing.so"},
             "routes": [{"request": "launch", "plugin": "welcome", "manager": "Launch"}], "start": ["launch"]}
            """)
        let (run, manifest) = (started.output, started.manifest)

        #expect(run.status == 1, "as docs/cli.md says of a start request that fails")
        let said = (run.outputLines + run.errorLines).filter { $0.contains("library of plugin 'welcome' not found") }
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.hasPrefix("\(manifest): start request launch failed: libWelcomeMissing.so: ") == true)
        #expect(run.outputLines.filter { !$0.isEmpty } == ["  top: (nothing)"], "\(run.outputLines)")
    }

    /// A plugin that runs a service fails to load at the start, which `run` says then; the start request its
    /// routes fail refers back to that line rather than saying the same failure again.
    @Test func aStartRequestWhosePluginsServiceFailedToLoadRefersBackToIt() throws {
        let started = try Run(
            """
            {"manifestVersion": 1, "plugins": {"catalog": "libCatalogMissing.so"},
             "routes": [{"request": "home.show", "plugin": "catalog", "manager": "Home"}],
             "services": [{"plugin": "catalog", "service": "Store"}], "start": ["home.show"]}
            """)
        let (run, manifest) = (started.output, started.manifest)

        #expect(run.status == 1)
        let said = (run.outputLines + run.errorLines).filter { $0.contains("library of plugin 'catalog' not found") }
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.hasPrefix("libCatalogMissing.so: ") == true, "the service's line, at the start")
        #expect(
            run.errorLines.last
                == "\(manifest): start request home.show failed: libCatalogMissing.so did not load (said above)")
    }

    /// A trace holds no line above the start request's error to refer back to: its screen line says the load
    /// failure whole, while the terminal keeps the short line.
    @Test func aTracedStartRequestWhosePluginsServiceFailedToLoadSaysWhy() throws {
        let started = try Run(
            """
            {"manifestVersion": 1, "plugins": {"catalog": "libCatalogMissing.so"},
             "routes": [{"request": "home.show", "plugin": "catalog", "manager": "Home"}],
             "services": [{"plugin": "catalog", "service": "Store"}], "start": ["home.show"]}
            """, traced: true)
        let (run, trace) = (started.output, started.trace)

        #expect(run.status == 1)
        #expect(run.errorLines.last?.hasSuffix("libCatalogMissing.so did not load (said above)") == true)
        let text = try readText(trace)
        #expect(!text.contains("said above"))
        #expect(
            text.contains(
                #""error":"start request home.show failed: libCatalogMissing.so did not load: library of plugin 'catalog' not found"#
            ), "\(text)")
    }

    /// A start request routed to a manager its plugin, loaded at the start for its service, does not export:
    /// `run` says the route's place then, and the start request refers to that place, not to a plugin that
    /// "did not load" (it loaded), while the trace gets the failure whole.
    @Test func aStartRequestToAManagerItsLoadedPluginLacksRefersToTheRoutesPlace() throws {
        let started = try Run(
            """
            {"manifestVersion": 1, "plugins": {"catalog": "libCatalogPlugin.so", "auth": "libAuthPlugin.so"},
             "routes": [{"request": "home.show", "plugin": "catalog", "manager": "Hom"}],
             "services": [{"plugin": "catalog", "service": "Store"}], "start": ["home.show"]}
            """, traced: true)
        let (run, manifest, trace) = (started.output, started.manifest, started.trace)

        let cause =
            "plugin 'catalog' exports no manager 'Hom' (did you mean 'Home'?); it exports: AddItem, CreateItem, Home, ItemDetail, ItemList, QuickCreate"
        #expect(run.status == 1)
        #expect(
            run.errorLines == [
                "\(manifest): routes[0].manager: \(cause)",
                "\(manifest): start request home.show failed: \(manifest): routes[0].manager (said above)",
            ])
        #expect(
            try readText(trace).contains(
                #""error":"start request home.show failed: \#(manifest): routes[0].manager: \#(cause)""#))
    }
}
