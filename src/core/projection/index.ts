export {
  cancellationVetoes,
  cursorConstantDiagnostic,
  cursorDiagnosticPrefix,
  cursorSuffixMaxBytes,
  matchCursorRetriableDiagnostic,
  type CursorDiagnosticMatch,
} from './cursor-diagnostic.js';
export {
  codexCapacityDiagnostic,
  observeUpdate,
  projectionAdapterIds,
  settleTurn,
  startTurn,
  type Observation,
  type ProjectedProviderError,
  type ProjectionAdapterId,
  type TurnNotification,
  type TurnOutcome,
  type TurnProjection,
} from './turn-projection.js';
