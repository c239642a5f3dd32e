import { compileCatalogue } from './compiled-catalogue.js';
import { catalogueRules } from '../catalogue/registry.js';
import { catalogueVersion } from '../catalogue/version.js';

/**
 * The shipped catalogue, indexed for classification. It lives beside the classifier rather than in
 * `catalogue/`: the catalogue is data and never imports the classifier that compiles it (lint-enforced).
 */
export const defaultCatalogue = compileCatalogue(catalogueVersion, catalogueRules);
