export { openRecourse, type Recourse, type RecourseOptions } from './open-recourse.js';
