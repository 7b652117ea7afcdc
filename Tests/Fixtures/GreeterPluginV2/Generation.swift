import FlowKit

let generation = 2
/// A manager generation 1 lacks, so that swapping back to it can be refused.
let extraManagers: [ManagerFactory] = [ManagerFactory("Farewell", GreeterManager.self)]
