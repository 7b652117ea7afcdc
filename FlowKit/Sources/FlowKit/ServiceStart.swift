/// A service a plugin asks the host to start when a manifest discovers the plugin, and the services that
/// must start before it.
///
/// Services start in the order of the plugins' requirements (``PluginDescription/requires``: a plugin's
/// services after those of the plugins it requires), each plugin's in the order it lists them, and stop in
/// reverse. `after` adds order without requiring anything: a service named there that is not running is
/// ignored, as systemd's `After=` is.
///
/// ```swift
/// startServices: [ServiceStart("Store", after: ["auth.Session"])]
/// ```
public struct ServiceStart: Sendable, Hashable {
    /// The service: one the plugin exports (``PluginDescription/services``), by name.
    public var name: String
    /// Services, as `plugin.Service`, that start before this one when they run at all.
    public var after: [String]

    /// Asks for the service `name` to start, after the services `after` when they run.
    public init(_ name: String, after: [String] = []) {
        self.name = name
        self.after = after
    }

    /// Asks for the service `service` makes (one of the plugin's ``PluginDescription/services``) to start,
    /// after the services `after` when they run: its name is the factory's, written once. Since FlowKit 1.2.
    public init(_ service: ServiceFactory, after: [String] = []) {
        self.init(service.name, after: after)
    }
}
