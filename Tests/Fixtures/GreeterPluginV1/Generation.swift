import FlowKit

let generation = 1
let extraManagers: [ManagerFactory] = []
