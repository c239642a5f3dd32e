import { describeRealAgent } from './fault-matrix.js';

describeRealAgent('gemini-cli', { freshSession: false });
