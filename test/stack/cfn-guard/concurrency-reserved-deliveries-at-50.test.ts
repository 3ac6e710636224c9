import { checkVariantWithGuard } from './guarded-synth';

checkVariantWithGuard('concurrency reserved, deliveries at 50');
