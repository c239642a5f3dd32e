export {
  admitsCandidate,
  circuitDefaults,
  circuitKey,
  circuitKeysOf,
  circuitsAfterFailure,
  circuitsAfterSuccess,
  circuitStates,
  gateDispatch,
  openCircuit,
  settleLapsedLease,
  type Circuit,
  type CircuitDescriptors,
  type CircuitState,
  type DispatchGate,
} from './circuit.js';
export {
  admittedBy,
  descriptorsOf,
  gateCandidate,
  routeCircuitKeys,
  type CandidateGate,
} from './route-circuits.js';
