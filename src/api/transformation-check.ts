import { validateTransformation } from '../transform/expression.js';
import { fail } from './problem.js';

/**
 * R-RH-TRANSFORM: a transformation is checked when it is saved (endpoints, destinations and
 * the dry run alike); a syntax error is a 400 naming it.
 */
export function checkTransformation(expression: string, path = 'transformation'): void {
  const v = validateTransformation(expression);
  if (!v.ok)
    fail(400, 'invalid_transformation', 'The transformation is not a valid JSONata expression', v.message, {
      path,
      ...(v.position !== undefined ? { position: v.position } : {}),
    });
}
