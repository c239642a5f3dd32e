import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('codex', { freshProcess: false });
