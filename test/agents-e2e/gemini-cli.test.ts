import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('gemini-cli', { freshProcess: false });
