import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('claude-code', { freshProcess: true });
