import FlowKit

/// The requests this plugin handles or sends. A fixture names them itself, rather than use FlowKit's
/// `showSettings`, `signIn` and `signOut`, so that it builds against every FlowKit 1.x, with or without those.
extension CoordinationRequestName {
    static let settingsShow: Self = "settings.show"
    static let authSignIn: Self = "auth.signIn"
    static let authSignOut: Self = "auth.signOut"
    static let showAbout: Self = "settings.about"
    static let editNickname: Self = "settings.nickname"
    static let nicknameForm: Self = "nickname.form"
    static let showNickname: Self = "settings.nicknameShown"
    static let showEvents: Self = "settings.events"
    static let eventLog: Self = "events.log"
    static let eventPing: Self = "events.ping"
}

/// The modules this plugin presents.
extension Coordinated {
    static let settings: Self = "settings"
    static let about: Self = "about"
    static let nicknameForm: Self = "nicknameForm"
    static let nickname: Self = "nickname"
    static let eventLog: Self = "eventLog"
}

/// The dependency through which the about screen finds the analytics.
extension DependencyKey {
    static let analytics: Self = "settings.analytics"
}

/// The dependency through which the event log's screen finds what the events flow's listener heard.
extension TypedDependencyKey where Value == EventLog {
    static let eventLog = TypedDependencyKey("settings.eventLog")
}
