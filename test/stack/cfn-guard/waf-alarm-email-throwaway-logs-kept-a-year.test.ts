import { checkVariantWithGuard } from './guarded-synth';

checkVariantWithGuard('WAF, alarm email, throwaway, logs kept a year');
