import { checkVariantWithGuard } from './guarded-synth';

checkVariantWithGuard('defaults');
