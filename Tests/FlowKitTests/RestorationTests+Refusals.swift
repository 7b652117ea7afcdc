import FlowKit
import Testing

// Snapshots that cannot be restored: a newer version, broken JSON, a tab this app does not have. Each is
// refused by name and where, and changes nothing.
extension RestorationTests {
    @Test func newerSnapshotVersionIsRefusedByNameAndChangesNothing() throws {
        let app = try walked()
        var saved = app.snapshot()
        saved.version = 4
        var json = saved.json
        json = ["version": 4, "steps": json["steps"]!, "presentation": json["presentation"]!]

        #expect(
            throws: FlowError(
                "snapshot version 4 is newer than this FlowKit reads (3); restore it with the FlowKit that saved it")
        ) {
            try FlowSnapshot(json: json)
        }
        #expect(throws: FlowError("snapshot version 4 is not one this FlowKit reads (1 to 3)")) {
            try app.restore(saved)
        }
        #expect(app.router.state == walkedState)
    }

    @Test func invalidSnapshotJSONNamesTheFirstProblemAndWhere() {
        func problem(_ json: JSONValue) -> String? {
            do {
                _ = try FlowSnapshot(json: json)
                return nil
            } catch {
                return error.message
            }
        }
        let empty: JSONValue = ["stack": []]
        #expect(problem(["steps": []]) == "not a flow snapshot: it has no 'version' number")
        #expect(problem(["version": 1, "presentation": empty]) == "invalid snapshot: 'steps' is missing")
        #expect(
            problem(["version": 1, "steps": [["request": 3]], "presentation": empty])
                == "invalid snapshot: at steps.0: 'request' must be a string, not number")
        #expect(
            problem(["version": 1, "steps": [], "presentation": ["stack": [["module": "home", "step": 0]]]])
                == "invalid snapshot: screen 0 ('home') comes from step 0, but there are 0 steps")
        #expect(
            problem([
                "version": 1, "steps": [], "presentation": empty, "children": [["path": [], "style": "sideways"]],
            ])
                == "invalid snapshot: at children.0: 'style' is 'sideways', not one of inline, modal, root, tab")
    }

    @Test func aTabTheSnapshotDoesNotHaveIsRefusedByNameAndWhere() throws {
        let saved = try walked().snapshot()  // two tabs, the second selected; steps 1 and 2 select one each
        func problem(_ change: (inout FlowSnapshot) -> Void) -> String? {
            var snapshot = saved
            change(&snapshot)
            do {
                _ = try FlowSnapshot(json: snapshot.json)
                return nil
            } catch {
                return error.message
            }
        }

        #expect(problem { _ in } == nil)
        #expect(
            problem { $0.steps[2].tab = 2 } == "invalid snapshot: at steps.2: 'tab' is 2, but there are 2 tabs")
        #expect(
            problem { $0.presentation.selectedTab = 5 }
                == "invalid snapshot: at presentation: 'selectedTab' is 5, but there are 2 tabs")
        #expect(
            problem { $0.presentation.tabs.removeLast() }
                == "invalid snapshot: at steps.2: 'tab' is 1, but there is 1 tab")
        #expect(
            problem { snapshot in
                snapshot.presentation.tabs = []
                for index in snapshot.steps.indices { snapshot.steps[index].tab = nil }
            } == "invalid snapshot: at presentation: 'selectedTab' is 1, but there are no tabs")
    }
}
