import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('codex', { freshSession: false });
