import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('claude-code', { freshSession: true });
